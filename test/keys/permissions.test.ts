import { expect, test } from "bun:test";
import { DEFAULT_PERMISSIONS, parsePermissions, permissionsOf } from "../../src/keys/permissions.ts";

test("manage is a permission a key may be given, and never one it gets by default", () => {
  expect(parsePermissions("manage")).toEqual({ permissions: ["manage"] });
  expect(parsePermissions("Manage, check")).toEqual({ permissions: ["check", "manage"] });
  expect(permissionsOf("check,report,manage")).toEqual(["check", "report", "manage"]);
  expect(DEFAULT_PERMISSIONS).toEqual(["check"]);
  expect(parsePermissions("admin")).toEqual({
    error: 'unknown permission "admin"; a key\'s permissions are check and/or report and/or manage, comma-separated',
  });
});
