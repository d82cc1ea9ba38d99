<?php
$title = 'Millbrook Public Library';
$current = '/index.php';
require __DIR__ . '/partials/header.php';
?>
    <section class="hero">
      <div>
        <h1>Stories, skills and somewhere warm.</h1>
        <p class="lead">Borrow books, films and museum passes, use the computers for free, or join one of more than forty events each month.</p>
        <a class="btn" href="/visit.php">Get a library card</a>
      </div>
      <img src="/images/reading-room.svg" alt="Shelves and armchairs in the reading room" width="460" height="300">
    </section>
    <h2>This week</h2>
    <ul class="cards">
      <li class="card"><h3>Toddler Rhyme Time</h3><p>Tuesday morning songs and stories for under-threes.</p></li>
      <li class="card"><h3>Digital help drop-in</h3><p>Friendly volunteers help with phones, laptops and forms.</p></li>
      <li class="card"><h3>Author talk</h3><p>Ines Calloway reads from her new novel on Thursday evening.</p></li>
    </ul>
    <p><a href="/events.php">See all events</a></p>
<?php require __DIR__ . '/partials/footer.php'; ?>
