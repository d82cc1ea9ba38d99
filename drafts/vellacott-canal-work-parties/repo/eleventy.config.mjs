// The Vellacott Canal Trust's site, built by Eleventy 3. Sources live in src/: the pages,
// the shared layout (src/_includes/) and the data every page can read (src/_data/: the
// trust's details and the season's work parties). Stylesheets, scripts and pictures are
// copied as they are.
export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ "src/css": "css", "src/images": "images" });

  // "2027-03-13" -> "Saturday 13 March"
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December"];
  eleventyConfig.addFilter("longDate", (iso) => {
    const date = new Date(`${iso}T12:00:00Z`);
    return `${DAYS[date.getUTCDay()]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
  });

  // A work party's kind of work ("locks") -> its entry in src/_data/kinds.json.
  eleventyConfig.addFilter("kindOf", (id, kinds) => kinds.find((kind) => kind.id === id));

  return {
    dir: { input: "src", includes: "_includes", data: "_data", output: "dist" },
    markdownTemplateEngine: "njk",
    htmlTemplateEngine: "njk",
  };
}
