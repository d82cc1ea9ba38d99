import Header from './components/Header.jsx';
import About from './pages/About.jsx';
import Home from './pages/Home.jsx';

const PAGES = { home: Home, about: About };

export default function App({ page }) {
  const Page = PAGES[page] ?? Home;
  return (
    <>
      <Header />
      <main>
        <Page />
      </main>
    </>
  );
}
