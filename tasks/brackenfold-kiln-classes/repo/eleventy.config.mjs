// Brackenfold Kiln's site, built by Eleventy 3. Sources live in src/: the pages, the
// shared layout (src/_includes/), and the data every page can read (src/_data/: the
// studio's details and next term's classes). Stylesheets and pictures are copied as
// they are.
export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ "src/css": "css", "src/images": "images" });
  return {
    dir: { input: "src", includes: "_includes", data: "_data", output: "dist" },
    markdownTemplateEngine: "njk",
    htmlTemplateEngine: "njk",
  };
}
