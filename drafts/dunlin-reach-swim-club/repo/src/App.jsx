import Footer from './components/Footer.jsx';
import Header from './components/Header.jsx';
import Home from './pages/Home.jsx';
import Join from './pages/Join.jsx';
import Swims from './pages/Swims.jsx';

const PAGES = { home: Home, swims: Swims, join: Join };

export default function App({ page }) {
  const Page = PAGES[page] ?? Home;
  return (
    <>
      <Header page={page} />
      <main>
        <Page />
      </main>
      <Footer />
    </>
  );
}
