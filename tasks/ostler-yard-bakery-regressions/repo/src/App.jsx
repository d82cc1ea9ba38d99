import Footer from './components/Footer.jsx';
import Header from './components/Header.jsx';
import Home from './pages/Home.jsx';
import Menu from './pages/Menu.jsx';
import Order from './pages/Order.jsx';
import Visit from './pages/Visit.jsx';

const PAGES = { home: Home, menu: Menu, order: Order, visit: Visit };

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
