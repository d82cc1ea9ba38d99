  </main>
  <footer class="site-footer">
    <div class="wrap">
      <p><strong>Loomworks</strong> · The Old Tannery, 14 Weir Lane, Brackenford</p>
      <p class="site-footer__small">Open to members 24/7. Front desk staffed weekdays 8:30–18:00.</p>
      <div class="notice" data-notice hidden>
        <p>We only store your preferences on this device. No tracking, no ads.</p>
        <button type="button" class="button button--small" data-notice-dismiss>Got it</button>
      </div>
    </div>
  </footer>
  <script src="/js/site.js"></script>
</body>
</html>
