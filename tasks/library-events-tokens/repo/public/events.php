<?php
$title = 'Events — Millbrook Public Library';
$current = '/events.php';
$events = require __DIR__ . '/partials/events-data.php';
$audience = $_GET['audience'] ?? 'all';
if (!in_array($audience, ['all', 'kids', 'adults'], true)) {
    $audience = 'all';
}
$filters = ['all' => 'All events', 'kids' => 'Kids', 'adults' => 'Adults'];
require __DIR__ . '/partials/header.php';
?>
    <h1>Events this month</h1>
    <p class="lead">All events are free. Places are limited, so please book ahead.</p>
    <nav class="filters" aria-label="Audience">
<?php foreach ($filters as $key => $label): ?>
      <a href="/events.php<?= $key === 'all' ? '' : '?audience=' . $key ?>"<?= $key === $audience ? ' aria-current="page"' : '' ?>><?= $label ?></a>
<?php endforeach; ?>
    </nav>
    <div class="event-grid">
<?php foreach ($events as $event): ?>
<?php if ($audience !== 'all' && $event['audience'] !== $audience) continue; ?>
      <article class="event-card">
        <h2><?= htmlspecialchars($event['title']) ?></h2>
        <p class="meta"><time><?= $event['when'] ?></time> · <?= htmlspecialchars($event['where']) ?></p>
<?php if ($event['full']): ?>
        <p><span class="badge-full">Fully booked</span></p>
<?php endif; ?>
        <p><?= htmlspecialchars($event['text']) ?></p>
        <a class="signup" href="/visit.php"><?= $event['action'] ?></a>
      </article>
<?php endforeach; ?>
    </div>
<?php require __DIR__ . '/partials/footer.php'; ?>
