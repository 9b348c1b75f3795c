print("loader benchmark: not written yet")
