# Never ends: stopped at the CPU-time limit.
while True:
    pass
