// A small WebDriver BiDi client for Debian's Firefox (firefox-esr), which
// speaks the protocol itself: Playwright drives only its own builds of
// Firefox, and nothing here may download one. It starts Firefox headless
// on a profile of its own, opens the session, and offers the few commands
// the page checks need. Node's WebSocket carries the messages (Node 22
// has it; Node 20 behind --experimental-websocket, which the tests pass).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { onPath, versionOf } from "./which.mjs";

export function findFirefox(flag) {
  return flag || process.env.CHOBO_FIREFOX || onPath(["firefox-esr", "firefox"]);
}

export function firefoxVersion(executable) {
  return versionOf(executable);
}

export class Firefox {
  static async launch(executable) {
    if (typeof WebSocket === "undefined") {
      throw new Error("this Node has no WebSocket: run it with --experimental-websocket (Node 20) or use Node 22");
    }
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "chobo-firefox-"));
    // No first-run pages, updates or telemetry: the page is all it loads.
    fs.writeFileSync(path.join(profile, "user.js"), [
      'user_pref("browser.shell.checkDefaultBrowser", false);',
      'user_pref("browser.startup.homepage_override.mstone", "ignore");',
      'user_pref("datareporting.policy.dataSubmissionEnabled", false);',
      'user_pref("app.update.enabled", false);',
      'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);',
      'user_pref("remote.active-protocols", 1);',
    ].join("\n") + "\n");
    const proc = spawn(executable, ["--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0", "about:blank"],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: "1" } });
    const url = await new Promise((resolve, reject) => {
      let err = "";
      const timer = setTimeout(() => reject(new Error(`Firefox did not open its BiDi port in 120 s: ${err.slice(-500)}`)), 120000);
      proc.stderr.on("data", (chunk) => {
        err += chunk.toString();
        const m = /WebDriver BiDi listening on (ws:\/\/[^\s]+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      proc.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`Firefox exited (${code}) before it opened its BiDi port: ${err.slice(-500)}`));
      });
    });
    const ff = new Firefox(proc, profile);
    await ff.connect(url.replace(/\/$/, "") + "/session");
    await ff.send("session.new", { capabilities: { alwaysMatch: { acceptInsecureCerts: false } } });
    const tree = await ff.send("browsingContext.getTree", {});
    ff.context = tree.contexts[0].context;
    return ff;
  }

  constructor(proc, profile) {
    this.proc = proc;
    this.profile = profile;
    this.next = 1;
    this.waiting = new Map();
  }

  connect(url) {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocket(url);
      this.ws.onopen = () => resolve();
      this.ws.onerror = (e) => reject(new Error(`BiDi connection: ${e.message || "failed"}`));
      this.ws.onmessage = (e) => {
        const msg = JSON.parse(e.data);
        const w = msg.id !== undefined && this.waiting.get(msg.id);
        if (!w) {
          return; // an event: none is subscribed to
        }
        this.waiting.delete(msg.id);
        if (msg.type === "error") {
          w.reject(new Error(`${w.method}: ${msg.error}: ${msg.message}`));
        } else {
          w.resolve(msg.result);
        }
      };
    });
  }

  send(method, params) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  async setViewport(width, height) {
    await this.send("browsingContext.setViewport", { context: this.context, viewport: { width, height } });
  }

  async navigate(url) {
    await this.send("browsingContext.navigate", { context: this.context, url, wait: "complete" });
  }

  // evaluate runs an expression and returns its value, which the
  // expression must give as JSON text.
  async evaluate(expression) {
    const r = await this.send("script.evaluate", { expression, target: { context: this.context }, awaitPromise: true, resultOwnership: "none" });
    if (r.type === "exception") {
      throw new Error(`in the page: ${r.exceptionDetails.text}`);
    }
    return r.result.type === "string" ? JSON.parse(r.result.value) : undefined;
  }

  async screenshot(file) {
    const r = await this.send("browsingContext.captureScreenshot", { context: this.context, origin: "document" });
    fs.writeFileSync(file, Buffer.from(r.data, "base64"));
  }

  async close() {
    try {
      await Promise.race([this.send("browser.close", {}), new Promise((resolve) => setTimeout(resolve, 5000))]);
    } catch {
      // closing anyway
    }
    if (this.ws) {
      this.ws.close();
    }
    if (this.proc.exitCode === null) {
      this.proc.kill("SIGKILL");
    }
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}
