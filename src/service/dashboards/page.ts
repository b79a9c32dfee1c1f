import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { Router, type Response } from 'express';
import { packageRoot } from '../../common/package-root.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';

/**
 * The dashboard page's files, as the build leaves them and the package ships them: in
 * build/browser/, the HTML and CSS (copied from src/dashboard/static/) and under js/ the browser
 * modules tsc compiled (the page's in dashboard/, what it shares with the service in common/);
 * and uPlot's own dist files. No token is needed to fetch them: they hold no data, and the page
 * signs in itself.
 */
export interface PageFiles {
  pageDir: string;
  uplotDir: string;
}

export function pageFiles(root: string = packageRoot()): PageFiles {
  return {
    pageDir: join(root, 'build', 'browser'),
    uplotDir: join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist'),
  };
}

/**
 * Scripts only from this origin and never inline, no plugins, no framing; the page talks only
 * to this service. uPlot styles its elements through the CSSOM, which style-src allows.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function setPageHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    // Revalidate every time: a new version of the package must not run against old scripts.
    'Cache-Control': 'no-cache',
  });
}

export function createDashboardPage(files: PageFiles = pageFiles()): Router {
  const router = Router();
  const entry = join(files.pageDir, 'js', 'dashboard', 'main.js');
  const built = existsSync(entry) && existsSync(join(files.pageDir, 'index.html'));

  const file = (directory: string, name: string) => (_req: unknown, res: Response) => {
    setPageHeaders(res);
    res.sendFile(name, { root: directory, dotfiles: 'deny' });
  };

  router
    .route('/')
    .get((req, res) => {
      if (!built) {
        setPageHeaders(res);
        res
          .status(503)
          .type('text/plain')
          .send(`The dashboard is not built: ${entry}, or index.html in ${files.pageDir}, is missing. Run "npm run build" in the Timemark package.`);
        return;
      }
      file(files.pageDir, 'index.html')(req, res);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router.get('/assets/dashboard.css', file(files.pageDir, 'dashboard.css'));
  router.get('/assets/vendor/uPlot.iife.min.js', file(files.uplotDir, 'uPlot.iife.min.js'));
  router.get('/assets/vendor/uPlot.min.css', file(files.uplotDir, 'uPlot.min.css'));
  router.use(
    '/assets/js',
    express.static(join(files.pageDir, 'js'), {
      index: false,
      redirect: false,
      dotfiles: 'deny',
      setHeaders: (res) => setPageHeaders(res as unknown as Response),
    }),
  );
  return router;
}
