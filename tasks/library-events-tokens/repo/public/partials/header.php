<?php
// Shared page header and main navigation. Set $title and $current before including.
$nav = [
    '/index.php' => 'Home',
    '/events.php' => 'Events',
    '/visit.php' => 'Visit us',
];
?>
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title><?= htmlspecialchars($title) ?></title>
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="site-header">
    <a class="brand" href="/index.php"><img src="/images/logo.svg" alt="" width="40" height="40"> Millbrook Public Library</a>
    <nav class="site-nav" aria-label="Main">
      <ul>
<?php foreach ($nav as $href => $label): ?>
        <li><a href="<?= $href ?>"<?= $href === $current ? ' aria-current="page"' : '' ?>><?= $label ?></a></li>
<?php endforeach; ?>
      </ul>
    </nav>
  </header>
  <main>
