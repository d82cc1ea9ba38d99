<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/sailings.php';

page_start('Home', '/');
?>
<section class="hero">
  <div class="hero__text">
    <p class="eyebrow">Port Ardle ⇄ Skerrow</p>
    <h1>Twelve crossings a day, twenty-five minutes across the Sound</h1>
    <p class="lede">The Kittiwake carries islanders, walkers, bikes and the post van between the mainland slipway and Skerrow pier. Turn up, buy your ticket on board, and watch for seals off Carra Point.</p>
    <a class="cta" href="/fares.php">Check the fares</a>
  </div>
  <img class="hero__picture" src="/images/kittiwake.svg" alt="The ferry Kittiwake crossing the Sound with Skerrow's hills behind" width="480" height="320">
</section>

<section class="crossings" aria-labelledby="next">
  <h2 id="next">Next crossings</h2>
  <p class="note">Monday to Saturday. Sunday boats are on the Timetable page.</p>
  <div class="crossings__grid">
<?php foreach (SAILINGS as $side): ?>
    <div class="panel">
      <h3>From <?= e($side['name']) ?></h3>
      <ul class="times">
<?php foreach (array_slice($side['times'], 0, 3) as [$depart, $arrive]): ?>
        <li><strong><?= $depart ?></strong> arrives <?= $arrive ?></li>
<?php endforeach; ?>
      </ul>
    </div>
<?php endforeach; ?>
  </div>
  <p><a href="/timetable.php">Full timetable</a></p>
</section>

<section class="tips" aria-labelledby="before">
  <h2 id="before">Before you sail</h2>
  <ol>
    <li>Foot passengers and bikes never need to book.</li>
    <li>Vehicles should be in the lane ten minutes before departure.</li>
    <li>Dogs are welcome on deck and in the lower saloon.</li>
  </ol>
</section>
<?php page_end();
