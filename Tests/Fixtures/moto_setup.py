"""Prepares a running moto server (`moto_server`) as an S3 upstream for the gateway's tests.

    .venv/bin/python moto_setup.py --endpoint http://127.0.0.1:PORT --manifest manifest.json --keys keys.json

The manifest is `{"bucket": NAME, "objects": {KEY: FILE, ...}}`. With moto's request authentication still
off (its default), this creates an IAM user allowed `s3:*`, an access key for it, the bucket and the objects,
then turns authentication on for every later request (moto's `/moto-api/reset-auth` with a count of 0), so
requests signed with a wrong secret get S3's own `SignatureDoesNotMatch`. Writes the access key to the --keys
file as JSON `{"accessKeyId": ..., "secretAccessKey": ...}`.
"""

import argparse
import json
import sys
import urllib.request

import boto3

POLICY = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--keys", required=True)
    parser.add_argument("--region", default="us-east-1")
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as file:
        manifest = json.load(file)

    # Any key signs while authentication is off; moto only starts checking after reset-auth below.
    session = boto3.session.Session(
        aws_access_key_id="setup", aws_secret_access_key="setup", region_name=args.region
    )
    iam = session.client("iam", endpoint_url=args.endpoint)
    iam.create_user(UserName="sluice")
    iam.put_user_policy(UserName="sluice", PolicyName="s3-all", PolicyDocument=POLICY)
    key = iam.create_access_key(UserName="sluice")["AccessKey"]

    path_style = boto3.session.Config(s3={"addressing_style": "path"})
    s3 = session.client("s3", endpoint_url=args.endpoint, config=path_style)
    bucket = manifest["bucket"]
    if args.region == "us-east-1":
        s3.create_bucket(Bucket=bucket)
    else:
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": args.region})
    for name, path in manifest["objects"].items():
        with open(path, "rb") as body:
            s3.put_object(Bucket=bucket, Key=name, Body=body, ContentType="application/octet-stream")

    request = urllib.request.Request(args.endpoint + "/moto-api/reset-auth", data=b"0", method="POST", headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request) as answer:
        if answer.status != 200:
            print(f"reset-auth answered {answer.status}", file=sys.stderr)
            return 1
    with open(args.keys, "w", encoding="utf-8") as file:
        json.dump({"accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}, file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
