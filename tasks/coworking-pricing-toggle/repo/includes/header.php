<?php
/** Shared page head and navigation. Set $pageTitle and $current before including. */
$navItems = [
    '/' => 'Home',
    '/spaces.php' => 'Spaces',
    '/pricing.php' => 'Pricing',
    '/contact.php' => 'Contact',
];
?><!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title><?= htmlspecialchars($pageTitle) ?> — Loomworks</title>
  <link rel="icon" href="/images/loom-mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="site-header">
    <div class="wrap site-header__inner">
      <a class="brand" href="/"><img src="/images/loom-mark.svg" alt="" width="32" height="32"> Loomworks</a>
      <nav aria-label="Main">
        <ul class="nav">
          <?php foreach ($navItems as $href => $label): ?>
            <li><a href="<?= $href ?>"<?= $current === $href ? ' aria-current="page"' : '' ?>><?= $label ?></a></li>
          <?php endforeach; ?>
        </ul>
      </nav>
    </div>
  </header>
  <main class="wrap">
