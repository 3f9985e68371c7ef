# Allocates without bound: stopped at the memory limit.
chunks = []
while True:
    chunks.append(bytearray(16 << 20))
