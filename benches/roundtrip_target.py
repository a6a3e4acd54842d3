# The benchmark's debuggee: a loop calling a function whose body holds the breakpoint line.
import sys


def work(i, acc):
    total = acc + i * i  # BREAK
    return total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    acc = 0
    for i in range(n):
        acc = work(i, acc)
        acc = acc % 1000003
    print("done", acc)


main()
