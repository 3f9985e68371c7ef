# A correct program: FizzBuzz for the numbers read from stdin.
import sys

for line in sys.stdin:
    n = int(line)
    print("FizzBuzz" if n % 15 == 0 else "Fizz" if n % 3 == 0 else "Buzz" if n % 5 == 0 else n)
