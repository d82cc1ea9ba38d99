<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Loomworks</title>
  <link rel="icon" href="/images/loom-mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="site-header">
    <div class="wrap site-header__inner">
      <a class="brand" href="/"><img src="/images/loom-mark.svg" alt="" width="32" height="32"> Loomworks</a>
    </div>
  </header>
  <main class="wrap">
    <section class="page-head">
      <h1>A new home for Loomworks online</h1>
      <p class="lead">Our website opens soon. Until then, knock on the tannery door.</p>
    </section>
  </main>
  <footer class="site-footer">
    <div class="wrap">
      <p><strong>Loomworks</strong> · The Old Tannery, 14 Weir Lane, Brackenford</p>
    </div>
  </footer>
</body>
</html>
