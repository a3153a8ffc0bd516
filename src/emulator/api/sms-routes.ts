import { Router } from 'express';
import { errorCodes, ValidationError } from '../../errors.ts';
import { isServiceMobileNumber } from '../../provider/normalize-phone.ts';
import { checkSender } from '../../provider/sanitize-sender.ts';
import {
  type SendSmsRequest,
  sendSmsRequestWithDefaultsSchema,
} from '../../provider/schemas/sms.ts';
import { authenticatedKeyPair } from '../authenticate.ts';
import { apiErrorCodes, EmulatorApiError, notFound } from '../emulator-api-error.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import { toServiceSms } from '../message-store.ts';
import { parseRequest } from './parse-request.ts';

/** `POST /sms` and `GET /sms/{id}` (spec §4, §7). */
export function smsRoutes(context: EmulatorContext): Router {
  const router = Router();

  router.post('/sms', (req, res) => {
    const request = validSendRequest(req.body);
    const { location } = authenticatedKeyPair(res);
    const sms = context.lifecycle.accept(location, request);
    // The spec's answer: the request fields plus id, status and statusReason, nothing else.
    res.status(201).json({
      from: sms.from,
      to: sms.to,
      body: sms.body,
      shortenUrls: sms.shortenUrls,
      isTransactional: sms.isTransactional,
      id: sms.id,
      status: sms.status,
      statusReason: sms.statusReason,
    });
  });

  router.get('/sms/:id', (req, res) => {
    const sms = context.messages.getInLocation(authenticatedKeyPair(res).location, req.params.id);
    if (!sms) throw notFound(`sms ${req.params.id}`);
    res.json(toServiceSms(sms));
  });

  return router;
}

function validSendRequest(body: unknown): SendSmsRequest {
  const request = parseRequest(sendSmsRequestWithDefaultsSchema, body);
  if (request.body === '') {
    throw new EmulatorApiError(400, apiErrorCodes.MISSING_PARAMETER, "'body' is empty", 'body');
  }
  if (!/^\d+$/.test(request.to)) {
    throw new EmulatorApiError(
      400,
      apiErrorCodes.INVALID_PHONE_NUMBER,
      `'to' must be digits with the country prefix and no '+' or separators, such as 33612345678; got '${request.to}'`,
      'to',
    );
  }
  if (!isServiceMobileNumber(request.to)) {
    throw new EmulatorApiError(
      400,
      apiErrorCodes.NOT_A_MOBILE_NUMBER,
      `'to' ${request.to} is not a mobile phone number with its country prefix (such as 33612345678); the service only sends SMS to mobile numbers`,
      'to',
    );
  }
  return { ...request, from: sanitizedSender(request.from) };
}

/** The shared `from` rule of `provider/`, answered as the service would: 400 naming `from`. */
function sanitizedSender(from: string): string {
  try {
    return checkSender(from);
  } catch (error) {
    if (error instanceof ValidationError && error.code === errorCodes.INVALID_SENDER) {
      throw new EmulatorApiError(400, apiErrorCodes.INVALID_SENDER, error.message, 'from');
    }
    throw error;
  }
}
