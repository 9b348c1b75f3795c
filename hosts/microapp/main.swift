import MicroappSDK
print("hi")
