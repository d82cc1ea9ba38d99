import { render } from 'preact';
import { HomePage } from './pages/HomePage.jsx';
import { SeedsPage } from './pages/SeedsPage.jsx';
import { PacketPage } from './pages/PacketPage.jsx';
import { VisitPage } from './pages/VisitPage.jsx';
import { SiteHeader } from './components/SiteHeader.jsx';
import { SiteFooter } from './components/SiteFooter.jsx';

const PAGES = { home: HomePage, seeds: SeedsPage, packet: PacketPage, visit: VisitPage };

const root = document.getElementById('app');
const page = root.dataset.page;
const Page = PAGES[page] ?? HomePage;

render(
  <>
    <SiteHeader page={page} />
    <main id="main">
      <Page />
    </main>
    <SiteFooter />
  </>,
  root,
);
