import { ref } from 'vue'

// A very small history router: the current path, and a click handler that keeps
// same-origin links inside the app.
export const currentPath = ref(window.location.pathname)

export function navigate(path) {
  if (path === currentPath.value) return
  window.history.pushState({}, '', path)
  currentPath.value = path
  window.scrollTo(0, 0)
}

window.addEventListener('popstate', () => {
  currentPath.value = window.location.pathname
})

export function interceptLinks(event) {
  if (event.defaultPrevented || event.button !== 0) return
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const link = event.target.closest('a')
  if (!link || link.target || link.hasAttribute('download')) return
  const url = new URL(link.href, window.location.href)
  if (url.origin !== window.location.origin) return
  event.preventDefault()
  navigate(url.pathname)
}

export function matchRoute(routes, path) {
  for (const route of routes) {
    const names = []
    const pattern = new RegExp(
      '^' + route.path.replace(/:(\w+)/g, (_, n) => { names.push(n); return '([^/]+)' }) + '/?$'
    )
    const m = path.match(pattern)
    if (m) {
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]))
      return { component: route.component, params }
    }
  }
  return null
}
