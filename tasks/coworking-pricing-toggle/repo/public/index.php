<?php
$pageTitle = 'Coworking in the Old Tannery';
$current = '/';
require __DIR__ . '/../includes/header.php';
?>
<section class="hero">
  <div>
    <p class="kicker">Coworking in Brackenford</p>
    <h1>Desks with daylight, by the weir</h1>
    <p class="lead">Loomworks is a members' workspace in a restored 1890s tannery: 80 desks, six meeting rooms and the best filter coffee on Weir Lane.</p>
    <div class="actions">
      <a class="button" href="/contact.php">Book a tour</a>
      <a class="button button--ghost" href="/pricing.php">See pricing</a>
    </div>
  </div>
  <img class="hero__image" src="/images/tannery.svg" alt="The Loomworks building, a brick tannery with tall arched windows" width="480" height="340">
</section>

<section class="features">
  <h2>Why members stay</h2>
  <ul class="feature-list">
    <li class="card"><h3>Quiet by design</h3><p>Phone booths on every floor and a library room where calls are off-limits.</p></li>
    <li class="card"><h3>Rooms that work</h3><p>Book any of six meeting rooms from your phone, screens and whiteboards included.</p></li>
    <li class="card"><h3>A real community</h3><p>Friday lunches, skill swaps and a members' board for finding collaborators.</p></li>
  </ul>
</section>
<?php require __DIR__ . '/../includes/footer.php'; ?>
