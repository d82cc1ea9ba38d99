<?php
$pageTitle = 'Pricing';
$current = '/pricing.php';
$plans = require __DIR__ . '/../includes/plans.php';
require __DIR__ . '/../includes/header.php';

function euros(int $amount): string
{
    return '€' . number_format($amount);
}
?>
<section class="page-head">
  <h1>Pricing</h1>
  <p class="lead">Simple memberships with no joining fee. Every plan includes coffee, fast Wi-Fi and the roof terrace.</p>
</section>

<div class="plans">
  <?php foreach ($plans as $plan): ?>
    <article class="card plan<?= !empty($plan['featured']) ? ' plan--featured' : '' ?>">
      <?php if (!empty($plan['featured'])): ?><p class="plan__badge">Most popular</p><?php endif; ?>
      <h3><?= htmlspecialchars($plan['name']) ?></h3>
      <p class="plan__price"><span class="plan__amount"><?= euros($plan['monthly']) ?></span> <span class="plan__unit"><?= $plan['unit'] ?></span></p>
      <p><?= htmlspecialchars($plan['blurb']) ?></p>
      <ul class="plan__perks">
        <?php foreach ($plan['perks'] as $perk): ?><li><?= htmlspecialchars($perk) ?></li><?php endforeach; ?>
      </ul>
      <a class="button" href="/contact.php">Book a tour</a>
    </article>
  <?php endforeach; ?>
</div>

<section class="faq">
  <h2>Questions</h2>
  <h3>Is there a joining fee?</h3>
  <p>No. You pay for your first month (or year) and that is it.</p>
  <h3>Can I bring guests?</h3>
  <p>Yes, members can bring up to two guests a day for free. They sign in at the front desk.</p>
  <h3>How do I cancel?</h3>
  <p>Give us one month's notice by email. Annual memberships can be cancelled with a refund of the unused months.</p>
</section>
<?php require __DIR__ . '/../includes/footer.php'; ?>
