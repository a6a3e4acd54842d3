# The benchmark's debuggee for rdbg: same shape as roundtrip_target.py.
def work(i, acc)
  total = acc + i * i # BREAK
  total
end

def main
  n = ARGV.empty? ? 1000 : Integer(ARGV[0])
  acc = 0
  i = 0
  while i < n
    acc = work(i, acc)
    acc %= 1000003
    i += 1
  end
  puts "done #{acc}"
end

main
