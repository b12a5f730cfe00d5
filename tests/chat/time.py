# SPDX-License-Identifier: Apache-2.0
import json, sys, time
args = json.load(sys.stdin)
time.sleep(0.3)  # answers after get_weather when both run at once
print(json.dumps({"tz": args["tz"], "time": "14:05"}))
