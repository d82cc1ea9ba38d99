<section class="box box--bring" aria-labelledby="bring">
  <h2 id="bring">What to bring</h2>
  <ul>
    <li>The broken thing itself, and its charger or power lead if it has one.</li>
    <li>Any spare parts you already bought, and the box or manual if you kept them.</li>
    <li>One item per visitor at a time, so everyone in the queue gets a fixer.</li>
  </ul>
</section>
