<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/cafe.php';

page_start('Visit', '/visit.php');
?>
<section class="intro intro--plain">
  <h1>Visit</h1>
  <p class="lead">Most sessions are at St Aidan's Church Hall on Kiln Road, five minutes from Ashdown station. The Sessions page says where each one is.</p>
</section>

<section class="box" aria-labelledby="times">
  <h2 id="times">Opening times</h2>
  <p>Doors open at <?= HOURS['opens'] ?> and we pack up at <?= HOURS['closes'] ?>. The last items are taken in at <?= HOURS['last_in'] ?>, so there is time to finish them.</p>
</section>

<?php include __DIR__ . '/../includes/fragments/volunteer.php'; ?>

<section aria-labelledby="rules">
  <h2 id="rules">House rules</h2>
  <ul class="rules">
    <li>Repairs are free. There is a donations tin by the urn.</li>
    <li>Electrical items are safety-tested before they leave.</li>
    <li>You stay with your item; the fixer helps, you decide.</li>
  </ul>
</section>
<?php page_end();
