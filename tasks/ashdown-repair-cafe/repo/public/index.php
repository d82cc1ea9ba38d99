<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/cafe.php';

page_start('Home', '/');
?>
<section class="intro">
  <div class="intro__copy">
    <p class="kicker">Free repairs, once a month</p>
    <h1>Don't bin it, bring it</h1>
    <p class="lead">A wobbly chair, a kettle that won't click off, a coat with a stuck zip: bring it to the Ashdown Repair Café and mend it with one of our volunteer fixers. You learn how, it stays out of the skip, and the tea is on us.</p>
    <a class="button" href="/sessions.php">See the sessions</a>
  </div>
  <img class="intro__art" src="/images/workbench.svg" alt="A toaster, a bicycle wheel and a reel of thread laid out on a repair bench" width="440" height="300">
</section>

<section class="box box--next" aria-labelledby="next">
  <h2 id="next">Next repair café</h2>
  <p class="next__when">Saturday 12 September</p>
  <p class="next__where">St Aidan's Church Hall, Kiln Road · 10:00 to 13:00</p>
</section>

<section aria-labelledby="fix">
  <h2 id="fix">What we fix</h2>
  <ul class="tiles">
    <li>Small electricals</li>
    <li>Bikes and prams</li>
    <li>Clothes and textiles</li>
    <li>Furniture and woodwork</li>
    <li>Clocks and radios</li>
    <li>Toys and jewellery</li>
  </ul>
  <p class="aside">We don't take microwaves, anything with gas, or phone screens.</p>
</section>

<section class="tally" aria-labelledby="year">
  <h2 id="year">Last year at the café</h2>
  <p><strong>412</strong> things brought in, <strong>287</strong> mended, and about <strong>1.3 tonnes</strong> kept out of landfill.</p>
</section>
<?php page_end();
