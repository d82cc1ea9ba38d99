// Sends the sign-up 100 ms after the click (a debounce), then shows the server's answer.
document.getElementById('go').addEventListener('click', () => {
  const email = document.getElementById('email').value;
  setTimeout(async () => {
    const res = await fetch(document.body.dataset.api, {method: 'POST', body: email});
    const out = await res.json();
    document.getElementById('msg').textContent = res.ok ? 'Thanks, you are signed up' : out.error;
  }, 100);
});
