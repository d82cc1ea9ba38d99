<?php
$pageTitle = 'Contact';
$current = '/contact.php';
require __DIR__ . '/../includes/header.php';
?>
<section class="page-head">
  <h1>Come and see us</h1>
  <p class="lead">Tours run every weekday at 10:00 and 15:00. Drop us a line and we will hold a slot for you.</p>
</section>
<div class="contact-grid">
  <div class="card">
    <h2>Visit</h2>
    <p>The Old Tannery<br>14 Weir Lane<br>Brackenford</p>
  </div>
  <div class="card">
    <h2>Write or call</h2>
    <p>hello@loomworks.example<br>0161 555 0142</p>
  </div>
</div>
<?php require __DIR__ . '/../includes/footer.php'; ?>
