// The benchmark's debuggee for js-debug: same shape as roundtrip_target.py.
function work(i, acc) {
  const total = acc + i * i; // BREAK
  return total;
}

function main() {
  const n = process.argv.length > 2 ? Number(process.argv[2]) : 1000;
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc = work(i, acc);
    acc = acc % 1000003;
  }
  console.log("done", acc);
}

main();
