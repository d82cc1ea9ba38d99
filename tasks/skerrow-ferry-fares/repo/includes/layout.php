<?php
/**
 * Page frame shared by every page: head, header with the main navigation, footer.
 * Call page_start() before the page's content and page_end() after it.
 */

const NAV = [
    '/' => 'Home',
    '/timetable.php' => 'Timetable',
    '/fares.php' => 'Fares',
    '/notices.php' => 'Notices',
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
  <title><?= e($title) ?> · Skerrow Sound Ferry</title>
  <link rel="icon" href="/images/mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="masthead">
    <div class="frame masthead__row">
      <a class="brand" href="/"><img src="/images/mark.svg" alt="" width="36" height="36"><span>Skerrow Sound Ferry</span></a>
      <nav aria-label="Main">
        <ul class="menu">
<?php foreach (NAV as $href => $label): ?>
          <li><a href="<?= $href ?>"<?= $href === $current ? ' aria-current="page"' : '' ?>><?= $label ?></a></li>
<?php endforeach; ?>
        </ul>
      </nav>
    </div>
  </header>
  <main class="frame">
<?php
}

function page_end(): void
{
    ?>
  </main>
  <footer class="colophon">
    <div class="frame">
      <p>Skerrow Sound Ferry runs between Port Ardle slipway and Skerrow pier, every day of the year except 25 December.</p>
      <p>Owned by the people of Skerrow since 1987. Office on the pier: 01871 555 260.</p>
    </div>
  </footer>
</body>
</html>
<?php
}
