// Sallowmere Community Radio's site, built by Eleventy 3. Sources live in src/: the pages,
// the shared layout (src/_includes/) and the data every page can read (src/_data/: the
// station's details and the weekly shows). Stylesheets and pictures are copied as they are.
export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ "src/css": "css", "src/images": "images" });

  // When a show comes off air: its start ("19:00") plus its length in minutes.
  eleventyConfig.addFilter("until", (start, minutes) => {
    const [hours, mins] = start.split(":").map(Number);
    const end = hours * 60 + mins + minutes;
    return `${Math.floor(end / 60)}:${end % 60}`;
  });

  return {
    dir: { input: "src", includes: "_includes", data: "_data", output: "dist" },
    markdownTemplateEngine: "njk",
    htmlTemplateEngine: "njk",
  };
}
