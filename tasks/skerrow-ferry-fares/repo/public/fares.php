<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/fares.php';

page_start('Fares', '/fares.php');
?>
<section class="intro">
  <h1>Fares</h1>
  <p class="lede">Pay on board by card or cash. Prices are for a single crossing; a return costs two singles.</p>
</section>

<section class="prices" aria-labelledby="price-list">
  <h2 id="price-list">Single fares</h2>
  <table class="board">
    <thead>
      <tr><th scope="col">Ticket</th><th scope="col">Single</th></tr>
    </thead>
    <tbody>
<?php foreach (FARES as [$label, $price]): ?>
      <tr><td><?= e($label) ?></td><td><?= money($price) ?></td></tr>
<?php endforeach; ?>
    </tbody>
  </table>
  <p class="note">Vehicle fares are for the vehicle only; its driver and passengers pay their own fares.</p>
</section>

<section class="islanders" aria-labelledby="islander-card">
  <h2 id="islander-card">Living on Skerrow?</h2>
  <p>Islanders travel on a ten-journey card from the pier office. Bring proof of address and a photo.</p>
</section>
<?php page_end();
