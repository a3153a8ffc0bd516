export * from './api-error.ts';
export * from './contact.ts';
export * from './custom-column.ts';
export * from './group.ts';
export * from './notification.ts';
export * from './reply.ts';
export * from './sms.ts';
export * from './webhook.ts';
