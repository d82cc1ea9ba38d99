<?php
$title = 'Visit us — Millbrook Public Library';
$current = '/visit.php';
require __DIR__ . '/partials/header.php';
?>
    <h1>Visit us</h1>
    <p class="lead">We are at 1 Orchard Row, next to the market square. Library cards are free for anyone who lives, works or studies in Millbrook: bring proof of address to the front desk.</p>
    <div class="visit">
      <table class="hours">
        <caption>Opening hours</caption>
        <tr><th scope="row">Monday to Friday</th><td>09:00–19:00</td></tr>
        <tr><th scope="row">Saturday</th><td>10:00–16:00</td></tr>
        <tr><th scope="row">Sunday</th><td>Closed</td></tr>
      </table>
      <div>
        <h2>Getting here</h2>
        <p>Buses 3 and 9 stop on Orchard Row. There are six bike racks by the entrance and a lift to every floor.</p>
      </div>
    </div>
<?php require __DIR__ . '/partials/footer.php'; ?>
