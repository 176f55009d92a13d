export * from "@tanstack/virtual-core";
