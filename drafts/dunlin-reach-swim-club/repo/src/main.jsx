// R0's entry: every page is one HTML file (a build input in vite.config.js) whose
// #root names the page React renders into it.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App.jsx';

const root = document.getElementById('root');
createRoot(root).render(
  <StrictMode>
    <App page={root.dataset.page} />
  </StrictMode>,
);
