<?php
require __DIR__ . '/../includes/layout.php';

page_start('Notices', '/notices.php');
?>
<section class="intro">
  <h1>Travel notices</h1>
  <p class="lede">Changes to the service are posted here and on the board at both slipways.</p>
</section>

<ul class="notices">
  <li class="notice">
    <h2>Kittiwake in dry dock, 2 to 6 March</h2>
    <p>The relief boat Shearwater runs the same timetable but carries only four cars. Please book vehicle space at the pier office.</p>
  </li>
  <li class="notice">
    <h2>Strong winds</h2>
    <p>Crossings are called off when the wind at Carra Point passes force 7. The skipper decides on the morning; listen for the horn at 06:45.</p>
  </li>
</ul>

<details class="archive">
  <summary>Earlier notices</summary>
  <p>New ramp at Port Ardle slipway finished in October; vehicles now load from the north side.</p>
</details>
<?php page_end();
