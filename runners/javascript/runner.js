// runner.js - the candidate's side for JavaScript: load the candidate's code, answer calls with plain data.
// usage: node runner.js SOURCE IN_FD OUT_FD. Everything here is in the candidate's reach; the driver
// decodes what it says into fresh Python objects and compares them itself.
"use strict";
const fs = require("fs");

const [source, inFd, outFd] = [process.argv[2], +process.argv[3], +process.argv[4]];
for (const m of ["log", "info", "warn", "error", "debug"]) console[m] = () => {};

function send(obj) {
	const b = Buffer.from(JSON.stringify(obj) + "\n");
	for (let off = 0; off < b.length; ) off += fs.writeSync(outFd, b, off);
}

let pending = Buffer.alloc(0);
function readLine() {
	for (;;) {
		const i = pending.indexOf(10);
		if (i >= 0) {
			const line = pending.subarray(0, i).toString();
			pending = pending.subarray(i + 1);
			return line;
		}
		const chunk = Buffer.alloc(1 << 16);
		let n;
		try {
			n = fs.readSync(inFd, chunk, 0, chunk.length, null);
		} catch (e) {
			if (e.code === "EAGAIN") continue;
			throw e;
		}
		if (n === 0) process.exit(0);
		pending = Buffer.concat([pending, chunk.subarray(0, n)]);
	}
}

// Plain data both ways, in plain.py's tagged JSON.
function encode(v, depth = 0) {
	if (depth > 200) throw new RangeError("value nested too deeply");
	if (v === null || v === undefined) return null;
	switch (typeof v) {
	case "boolean":
	case "string":
		return v;
	case "number":
		if (Number.isNaN(v)) return { $float: "nan" };
		if (!Number.isFinite(v)) return { $float: v > 0 ? "inf" : "-inf" };
		return v;
	case "bigint":
		return { $int: v.toString() };
	}
	if (Array.isArray(v)) return v.map((x) => encode(x, depth + 1));
	if (v instanceof Set) return { $set: [...v].map((x) => encode(x, depth + 1)) };
	if (v instanceof Map) return { $dict: [...v].map(([k, x]) => [encode(k, depth + 1), encode(x, depth + 1)]) };
	if (Object.getPrototypeOf(v) === Object.prototype) {
		const out = {};
		for (const [k, x] of Object.entries(v)) out[k] = encode(x, depth + 1);
		return Object.keys(out).some((k) => k.startsWith("$"))
			? { $dict: Object.entries(out).map(([k, x]) => [k, x]) } : out;
	}
	return { $opaque: (v.constructor && v.constructor.name) || typeof v, repr: String(v).slice(0, 200) };
}

function decode(v) {
	if (Array.isArray(v)) return v.map(decode);
	if (v === null || typeof v !== "object") return v;
	const keys = Object.keys(v);
	if (keys.length === 1) {
		const [k] = keys;
		if (k === "$tuple") return v[k].map(decode);
		if (k === "$set" || k === "$frozenset") return new Set(v[k].map(decode));
		if (k === "$float") return Number(v[k].replace("inf", "Infinity"));
		if (k === "$int") return BigInt(v[k]);
		if (k === "$dict") return new Map(v[k].map(([a, b]) => [decode(a), decode(b)]));
		if (k === "$bytes") return Buffer.from(v[k], "hex");
	}
	const out = {};
	for (const k of keys) out[k] = decode(v[k]);
	return out;
}

function describe(e) {
	let name = "Error", msg = "";
	try {
		name = String((e && e.name) || typeof e).slice(0, 100);
		msg = String((e && e.message) || e).slice(0, 1000);
	} catch (_) { /* a hostile error object */ }
	return { exc: name, msg };
}

let lookup;
try {
	const code = fs.readFileSync(source, "utf8");
	const module = { exports: {} };
	// The candidate's top-level declarations, reached by name from inside its own scope.
	lookup = new Function("module", "exports", "require",
		code + "\n;return function (__sandeval_name) { try { return eval(__sandeval_name); } " +
		"catch (e) { return module.exports[__sandeval_name]; } };")(module, module.exports, require);
} catch (e) {
	send(Object.assign(describe(e), { ready: false }));
	process.exit(0);
}
send({ ready: true });

for (;;) {
	const req = JSON.parse(readLine());
	try {
		const fn = lookup(req.fn);
		if (typeof fn !== "function") {
			send({ exc: "ReferenceError", msg: `${req.fn} is not a function` });
			continue;
		}
		send({ ok: encode(fn(...decode(req.args))) });
	} catch (e) {
		send(describe(e));
	}
}
