import json, sys
args = json.load(sys.stdin)
print(json.dumps({"city": args["city"], "temp_c": 18}))
