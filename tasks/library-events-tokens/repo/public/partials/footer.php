  </main>
  <footer class="site-footer">
    <p>Millbrook Public Library · 1 Orchard Row · Free to join, free to visit</p>
  </footer>
</body>
</html>
