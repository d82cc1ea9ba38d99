<?php
require __DIR__ . '/../includes/layout.php';
require __DIR__ . '/../includes/cafe.php';

page_start('Sessions', '/sessions.php');
?>
<section class="intro intro--plain">
  <h1>Sessions</h1>
  <p class="lead">We meet on the second Saturday of the month. No booking: join the queue at the welcome desk and we'll pair you with a fixer.</p>
</section>

<ol class="dates">
<?php foreach (SESSIONS as $session): ?>
  <li class="date-card">
    <h2><?= e(session_day($session)) ?></h2>
    <p class="date-card__venue"><?= e($session['venue']) ?></p>
    <p class="date-card__note"><?= e($session['note']) ?></p>
  </li>
<?php endforeach; ?>
</ol>

<section aria-labelledby="how">
  <h2 id="how">How a session works</h2>
  <ol class="steps">
    <li>Sign in at the welcome desk and tell us what's wrong.</li>
    <li>Wait with a cup of tea until a fixer with the right skills is free.</li>
    <li>Sit with the fixer and mend it together; we explain as we go.</li>
    <li>Fixed or not, it goes home with you, with a note of what we tried.</li>
  </ol>
</section>
<?php page_end();
