import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// Every HTML page is a build input: add new pages here.
export default defineConfig({
  plugins: [react()],
  build: {
    rollupOptions: {
      input: { main: page('index.html'), swims: page('swims.html'), join: page('join.html') },
    },
  },
});
