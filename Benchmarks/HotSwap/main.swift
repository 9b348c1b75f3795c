print("hot swap benchmark: not written yet")
