import Footer from './components/Footer.jsx';
import Header from './components/Header.jsx';
import Commissions from './pages/Commissions.jsx';
import Home from './pages/Home.jsx';
import Workshops from './pages/Workshops.jsx';

const PAGES = { home: Home, workshops: Workshops, commissions: Commissions };

export default function App({ page }) {
  const Page = PAGES[page] ?? Home;
  return (
    <>
      <Header current={page} />
      <main>
        <Page />
      </main>
      <Footer />
    </>
  );
}
