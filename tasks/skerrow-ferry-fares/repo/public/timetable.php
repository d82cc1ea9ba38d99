<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/sailings.php';

page_start('Timetable', '/timetable.php');
?>
<section class="intro">
  <h1>Timetable</h1>
  <p class="lede">Monday to Saturday, all year. Every crossing takes 25 minutes; the boat waits for the school bus if it is running late.</p>
</section>

<?php foreach (SAILINGS as $key => $side): ?>
<section class="sailings" id="from-<?= $key ?>">
  <h2>From <?= e($side['name']) ?></h2>
  <table class="board">
    <caption>Sailings from <?= e($side['name']) ?></caption>
    <thead>
      <tr><th scope="col">Departs</th><th scope="col">Arrives</th><th scope="col">Good to know</th></tr>
    </thead>
    <tbody>
<?php foreach ($side['times'] as [$depart, $arrive, $note]): ?>
      <tr><td><?= $depart ?></td><td><?= $arrive ?></td><td><?= e($note) ?></td></tr>
<?php endforeach; ?>
    </tbody>
  </table>
</section>
<?php endforeach; ?>

<section class="sunday">
  <h2>Sunday service</h2>
  <p>Four return crossings: Port Ardle at 10:00, 13:00, 16:00 and 18:30; Skerrow at 10:40, 13:40, 16:40 and 19:10.</p>
</section>
<?php page_end();
