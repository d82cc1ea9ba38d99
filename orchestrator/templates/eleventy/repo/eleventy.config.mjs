// Eleventy's configuration (Eleventy 3, ESM). The site's sources are under src/: pages
// (Markdown or Nunjucks), the shared layout in src/_includes/, global data in src/_data/.
// Files that are not templates are copied as they are (passthrough copy).
export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ "src/style.css": "style.css" });
  return {
    dir: { input: "src", includes: "_includes", data: "_data", output: "dist" },
    markdownTemplateEngine: "njk",
    htmlTemplateEngine: "njk",
  };
}
