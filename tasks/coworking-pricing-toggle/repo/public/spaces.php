<?php
$pageTitle = 'Spaces';
$current = '/spaces.php';
require __DIR__ . '/../includes/header.php';
?>
<section class="page-head">
  <h1>Spaces</h1>
  <p class="lead">Three floors of the old tannery, each with its own character.</p>
</section>
<ul class="space-list">
  <li class="card">
    <h2>The Drying Loft</h2>
    <p>Our open-plan top floor: hot desks under the original oak beams, with views over the weir.</p>
    <p class="meta">42 desks · 2 phone booths</p>
  </li>
  <li class="card">
    <h2>The Mill Rooms</h2>
    <p>Dedicated desks and six bookable meeting rooms, from a two-person snug to the 14-seat Boardroom.</p>
    <p class="meta">30 desks · 6 meeting rooms</p>
  </li>
  <li class="card">
    <h2>The Yard Studios</h2>
    <p>Eight lockable studios around the courtyard for small teams who want their own door.</p>
    <p class="meta">8 studios · 2–4 people each</p>
  </li>
</ul>
<?php require __DIR__ . '/../includes/footer.php'; ?>
