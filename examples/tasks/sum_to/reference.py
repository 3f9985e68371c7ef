def sum_to(n: int) -> int:
    total = 0
    i = 1
    while i <= n:
        total += i
        i += 1
    return total
