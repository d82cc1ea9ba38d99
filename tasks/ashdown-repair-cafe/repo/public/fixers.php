<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/cafe.php';

$fixers = FIXERS;
foreach ($fixers as &$fixer) {
    sort($fixer['skills']);
}

page_start('Fixers', '/fixers.php');
?>
<section class="intro intro--plain">
  <h1>Our fixers</h1>
  <p class="lead">Six regulars, each with a corner of the hall. Tell the welcome desk what you've brought and they'll send you to the right table.</p>
</section>

<ul class="crew">
<?php foreach ($fixers as $fixer): ?>
  <li class="crew-card">
    <h3><?= e($fixer['name']) ?></h3>
    <p><?= e($fixer['about']) ?></p>
    <ul class="chips" aria-label="Mends">
<?php foreach ($fixer['skills'] as $skill): ?>
      <li><?= e($skill) ?></li>
<?php endforeach; ?>
    </ul>
  </li>
<?php endforeach; ?>
</ul>

<?php include __DIR__ . '/../includes/fragments/volunteer.php'; ?>
<?php page_end();
