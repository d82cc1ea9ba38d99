import Footer from './components/Footer.jsx';
import Header from './components/Header.jsx';
import Home from './pages/Home.jsx';
import Sessions from './pages/Sessions.jsx';
import Visit from './pages/Visit.jsx';

const PAGES = { home: Home, sessions: Sessions, visit: Visit };

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
