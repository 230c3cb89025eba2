// A JavaScript (CommonJS) infra program, the way `pulumi new javascript` lays one out.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { StorageUser } = require("pulumi-storage-user");

const user = new StorageUser("app", { userName: new pulumi.Config().require("userName") });
exports.userId = user.userId;
exports.s3 = user.s3;
exports.env = user.env;
