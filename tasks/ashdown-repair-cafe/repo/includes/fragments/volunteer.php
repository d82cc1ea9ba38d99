<section class="box box--join" aria-labelledby="join">
  <h2 id="join">Join the fixers</h2>
  <p>Good with a soldering iron, a sewing machine or a spoke key? We need hands for the table and for the welcome desk.</p>
  <p>Come to any session and ask for Maud at the tea urn; you can watch a morning before you pick up a screwdriver.</p>
</section>
