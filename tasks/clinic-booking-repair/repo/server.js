// Harbourside Family Clinic: a tiny Node server (no dependencies).
// Pages live in public/; the booking pages are filled in from SLOTS ({{name}} placeholders).
const http = require("http");
const fs = require("fs");
const path = require("path");

const PORT = Number(process.env.PORT) || 3000;
const ROOT = path.join(__dirname, "public");

const PAGES = {
  "/": "index.html",
  "/services": "services.html",
  "/visiting": "visit.html",
};

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

const SLOTS = [
  { id: "mon-0900", day: "Monday 9 June", time: "09:00", clinician: "Dr. Lewis Brandt" },
  { id: "mon-1130", day: "Monday 9 June", time: "11:30", clinician: "Nurse Priya Shah" },
  { id: "tue-0930", day: "Tuesday 10 June", time: "09:30", clinician: "Dr. Amara Okafor" },
  { id: "tue-1400", day: "Tuesday 10 June", time: "14:00", clinician: "Dr. Lewis Brandt" },
  { id: "wed-1015", day: "Wednesday 11 June", time: "10:15", clinician: "Dr. Amara Okafor" },
  { id: "wed-1645", day: "Wednesday 11 June", time: "16:45", clinician: "Nurse Priya Shah" },
];

function send(res, status, type, body) {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" });
  res.end(body);
}

function sendFile(res, file, status = 200) {
  fs.readFile(file, (err, data) => {
    if (err) return notFound(res);
    send(res, status, TYPES[path.extname(file)] || "application/octet-stream", data);
  });
}

function renderPage(res, name, vars) {
  fs.readFile(path.join(ROOT, name), "utf8", (err, html) => {
    if (err) return notFound(res);
    send(res, 200, TYPES[".html"], html.replace(/\{\{(\w+)\}\}/g, (_, key) => vars[key] ?? ""));
  });
}

function slotButton(slot) {
  return `      <button type="button" class="slot" data-slot="${slot.id}" aria-pressed="false">` +
    `<span class="slot-day">${slot.day}</span> <span class="slot-time">${slot.time}</span></button>`;
}

function notFound(res) {
  send(res, 404, TYPES[".html"], "<!doctype html><title>Not found</title><h1>Page not found</h1>");
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  const pathname = url.pathname.replace(/\/+$/, "") || "/";

  if (pathname === "/api/slots") {
    return send(res, 200, TYPES[".json"], JSON.stringify(SLOTS));
  }
  if (pathname === "/book") {
    return renderPage(res, "book.html", { slots: SLOTS.map(slotButton).join("\n") });
  }
  if (pathname === "/book/confirm") {
    const slot = SLOTS.find((s) => s.id === url.searchParams.get("slot"));
    const summary = slot
      ? `Your appointment: ${slot.day} at ${slot.time}`
      : "No time selected. Please choose a time first.";
    return renderPage(res, "confirm.html", { summary });
  }
  if (PAGES[pathname]) {
    return sendFile(res, path.join(ROOT, PAGES[pathname]));
  }
  const file = path.normalize(path.join(ROOT, pathname));
  if (!file.startsWith(ROOT + path.sep) || !path.extname(file)) return notFound(res);
  sendFile(res, file);
});

server.listen(PORT, "0.0.0.0", () => {
  console.log(`Harbourside Family Clinic on http://0.0.0.0:${PORT}`);
});
