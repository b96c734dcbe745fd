import type { Config } from '../config.ts';

/** Which outside services this deployment is configured to use (never their credentials). */
export function configuredProviders(config: Config) {
  return {
    identity: config.sessionJwksUrl !== null,
    judge: config.judgeBaseUrl !== null,
    mail: config.smtpUrl !== null,
    billing: config.stripe.secretKey !== null,
    billing_webhooks: config.stripe.webhookSecret !== null,
  };
}
