<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Skerrow Sound Ferry</title>
  <link rel="icon" href="/images/mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="masthead">
    <div class="frame masthead__row">
      <a class="brand" href="/"><img src="/images/mark.svg" alt="" width="36" height="36"><span>Skerrow Sound Ferry</span></a>
    </div>
  </header>
  <main class="frame">
    <section class="intro">
      <h1>Our new website is on its way</h1>
      <p class="lede">Until it is ready, sailing times are on the board at Port Ardle slipway and Skerrow pier.</p>
    </section>
  </main>
  <footer class="colophon">
    <div class="frame">
      <p>Skerrow Sound Ferry runs between Port Ardle slipway and Skerrow pier, every day of the year except 25 December.</p>
    </div>
  </footer>
</body>
</html>
