<?php
/**
 * Page frame shared by every page: head, header with the main navigation, footer.
 * Call page_start() before the page's content and page_end() after it.
 */

const NAV = [
    '/' => 'Home',
    '/sessions.php' => 'Sessions',
    '/fixers.php' => 'Fixers',
    '/visit.php' => 'Visit',
];

function e(string $text): string
{
    return htmlspecialchars($text, ENT_QUOTES, 'UTF-8');
}

function page_start(string $title, string $current): void
{
    ?><!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title><?= e($title) ?> · Ashdown Repair Café</title>
  <link rel="icon" href="/images/spanner.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="topbar">
    <div class="wrap topbar__inner">
      <a class="logo" href="/"><img src="/images/spanner.svg" alt="" width="34" height="34"><span>Ashdown Repair Café</span></a>
      <nav aria-label="Main">
        <ul class="nav-list">
<?php foreach (NAV as $href => $label): ?>
          <li><a href="<?= $href ?>"<?= $href === $current ? ' aria-current="page"' : '' ?>><?= $label ?></a></li>
<?php endforeach; ?>
        </ul>
      </nav>
    </div>
  </header>
  <main class="wrap">
<?php
}

function page_end(): void
{
    ?>
  </main>
  <footer class="base">
    <div class="wrap base__inner">
      <p class="base__hours">Open 10:00 to 13:00 on session Saturdays.</p>
      <p>Ashdown Repair Café is run by volunteers with the Kiln Road Residents' Association. Repairs are free; donations keep the kettle on.</p>
    </div>
  </footer>
</body>
</html>
<?php
}
